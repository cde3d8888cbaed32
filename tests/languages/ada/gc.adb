--  1 GiB in 1 MiB blocks, one alive at a time (freed as the next comes).
with Ada.Text_IO;
with Ada.Unchecked_Deallocation;
procedure Main is
   type Block is array (1 .. 1_048_576) of Character;
   type Link is access Block;
   procedure Free is new Ada.Unchecked_Deallocation (Block, Link);
   Alive : Link := null;
begin
   for I in 0 .. 1023 loop
      Free (Alive);
      Alive := new Block'(others => Character'Val (I mod 256));
   end loop;
   Ada.Text_IO.Put_Line ("done" & Integer'Image (Alive'Length));
end Main;
