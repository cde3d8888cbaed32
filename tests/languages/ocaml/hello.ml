let () = print_endline "hello, world"
