;; Keeps every 1 MiB block: past any limit.
(use-modules (rnrs bytevectors))
(let loop ((kept '()) (n 0))
  (when (= n 1000000) (display (length kept)))
  (loop (cons (make-bytevector (* 1024 1024) 1) kept) (+ n 1)))
