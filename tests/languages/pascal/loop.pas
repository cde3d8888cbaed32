program Loop;
var
  x: int64;
begin
  x := 0;
  while true do
    x := (x * 31 + 7) mod 1000003;
end.
