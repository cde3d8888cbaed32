(let ((x 0))
  (declare (fixnum x))
  (loop (setf x (mod (+ (* x 31) 7) 1000003))))
