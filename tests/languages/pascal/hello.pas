program Hello;
begin
  writeln('hello, world');
end.
