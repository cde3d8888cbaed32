;; 1 GiB in 1 MiB blocks, one alive at a time.
(use-modules (rnrs bytevectors))
(let loop ((i 0) (alive #f))
  (if (< i 1024)
      (loop (+ i 1) (make-bytevector (* 1024 1024) (modulo i 256)))
      (begin (display "done ") (display (bytevector-length alive)) (newline))))
