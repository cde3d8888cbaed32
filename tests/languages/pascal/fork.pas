program Fork;
{ Each process forks for ever. }
uses BaseUnix;
begin
  while true do
    fpFork;
end.
