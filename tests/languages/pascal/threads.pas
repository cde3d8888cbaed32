program Threads;
{$mode objfpc}
uses cthreads, classes;
var
  part: array[0..3] of int64;
  t: array[0..3] of TThreadID;
  ids: array[0..3] of ptrint;
  k: integer;

function work(p: pointer): ptrint;
var
  id: ptrint;
  i, s: int64;
begin
  id := ptrint(p);
  s := 0;
  i := id;
  while i < 400000 do
  begin
    s := s + i;
    i := i + 4;
  end;
  part[id] := s;
  result := 0;
end;

begin
  for k := 0 to 3 do
  begin
    ids[k] := k;
    t[k] := BeginThread(@work, pointer(ids[k]));
  end;
  for k := 0 to 3 do
    WaitForThreadTerminate(t[k], 0);
  writeln(part[0] + part[1] + part[2] + part[3]);
end.
