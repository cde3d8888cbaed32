#lang racket/base
;; 1 GiB in 1 MiB blocks, one alive at a time.
(define alive
  (for/fold ([b #f]) ([i 1024])
    (make-bytes (* 1024 1024) (modulo i 256))))
(printf "done ~a\n" (bytes-length alive))
