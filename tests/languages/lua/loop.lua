local x = 0
while true do x = (x * 31 + 7) % 1000003 end
