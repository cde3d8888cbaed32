let () = Scanf.scanf " %Ld %Ld" (fun a b -> Printf.printf "%Ld\n" (Int64.add a b))
