a = nil
puts a.length
