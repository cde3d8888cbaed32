-- Keeps every 1 MiB block: past any limit.
local kept = {}
local i = 0
while true do
  i = i + 1
  kept[i] = string.rep(string.char(i % 256), 1 << 20)
end
