local t = nil
print(t.field)
