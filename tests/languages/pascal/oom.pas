program Oom;
{ Keeps every 1 MiB block: past any limit. }
type
  PNode = ^TNode;
  TNode = record
    data: array[0..1048575] of byte;
    next: PNode;
  end;
var
  head, n: PNode;
begin
  head := nil;
  while true do
  begin
    new(n);
    fillchar(n^.data, sizeof(n^.data), 1);
    n^.next := head;
    head := n;
  end;
end.
