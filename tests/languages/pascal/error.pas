program Error;
var
  a, b: integer;
begin
  a := 1;
  b := paramcount;
  writeln(a div b);
end.
