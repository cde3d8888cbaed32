program Sum;
var
  a, b: int64;
begin
  read(a, b);
  writeln(a + b);
end.
