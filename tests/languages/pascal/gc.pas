program Gc;
{ 1 GiB in 1 MiB blocks, one alive at a time (freed as the next comes). }
var
  p: pbyte;
  i: integer;
begin
  p := nil;
  for i := 0 to 1023 do
  begin
    if p <> nil then freemem(p);
    p := getmem(1048576);
    fillchar(p^, 1048576, i and 255);
  end;
  writeln('done ', 1048576);
end.
