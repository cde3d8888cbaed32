program Syntax;
begin
  writeln('missing semicolon')
  writeln('here');
end.
