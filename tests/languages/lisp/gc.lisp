;; 1 GiB in 1 MiB blocks, one alive at a time.
(let ((alive nil))
  (dotimes (i 1024)
    (setf alive (make-array (* 1024 1024) :element-type '(unsigned-byte 8) :initial-element (mod i 256))))
  (format t "done ~d~%" (length alive)))
