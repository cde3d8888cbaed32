--  Keeps every 1 MiB block: past any limit.
procedure Main is
   type Block is array (1 .. 1_048_576) of Character;
   type Node;
   type Link is access Node;
   type Node is record
      Data : Block;
      Next : Link;
   end record;
   Head : Link := null;
begin
   loop
      Head := new Node'(Data => (others => 'x'), Next => Head);
   end loop;
end Main;
