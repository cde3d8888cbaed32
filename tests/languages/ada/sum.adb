with Ada.Text_IO;
procedure Main is
   package LIO is new Ada.Text_IO.Integer_IO (Long_Long_Integer);
   A, B : Long_Long_Integer;
begin
   LIO.Get (A);
   LIO.Get (B);
   LIO.Put (A + B, Width => 0);
   Ada.Text_IO.New_Line;
end Main;
