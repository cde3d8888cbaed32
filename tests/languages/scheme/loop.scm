(let loop ((x 0))
  (loop (modulo (+ (* x 31) 7) 1000003)))
