let () = print_int (List.hd [])
