(* Keeps every 1 MiB block: past any limit. *)
let () =
  let kept = ref [] in
  while true do
    kept := Bytes.make (1 lsl 20) 'x' :: !kept
  done
