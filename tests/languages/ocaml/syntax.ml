let () = print_endline ("missing paren"
