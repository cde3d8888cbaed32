-- 1 GiB in 1 MiB blocks, one alive at a time.
local alive
for i = 0, 1023 do alive = string.rep(string.char(i % 256), 1 << 20) end
print("done " .. #alive)
