procedure Main is
   X : Long_Long_Integer := 0;
begin
   loop
      X := (X * 31 + 7) mod 1_000_003;
   end loop;
end Main;
