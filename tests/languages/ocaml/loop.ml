let () =
  let x = ref 0 in
  while true do
    x := (!x * 31 + 7) mod 1000003
  done
