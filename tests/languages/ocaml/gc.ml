(* 1 GiB in 1 MiB blocks, one alive at a time. *)
let () =
  let alive = ref Bytes.empty in
  for i = 0 to 1023 do
    alive := Bytes.make (1 lsl 20) (Char.chr (i mod 256))
  done;
  Printf.printf "done %d\n" (Bytes.length !alive)
