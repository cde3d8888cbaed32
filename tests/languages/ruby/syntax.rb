def f(
  puts "missing paren"
end
