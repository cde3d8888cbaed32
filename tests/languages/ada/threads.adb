--  Four tasks, each sums its quarter.
with Ada.Text_IO;
procedure Main is
   package LIO is new Ada.Text_IO.Integer_IO (Long_Long_Integer);
   type Sums is array (0 .. 3) of Long_Long_Integer;
   Part : Sums := (others => 0);
   task type Worker is
      entry Start (Id : Integer);
   end Worker;
   task body Worker is
      K : Integer;
      S : Long_Long_Integer := 0;
      I : Long_Long_Integer;
   begin
      accept Start (Id : Integer) do
         K := Id;
      end Start;
      I := Long_Long_Integer (K);
      while I < 400_000 loop
         S := S + I;
         I := I + 4;
      end loop;
      Part (K) := S;
   end Worker;
begin
   declare
      W : array (0 .. 3) of Worker;
   begin
      for K in 0 .. 3 loop
         W (K).Start (K);
      end loop;
   end;
   LIO.Put (Part (0) + Part (1) + Part (2) + Part (3), Width => 0);
   Ada.Text_IO.New_Line;
end Main;
