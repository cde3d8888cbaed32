;; Keeps every 1 MiB block: past any limit.
(let ((kept '()))
  (loop (push (make-array (* 1024 1024) :element-type '(unsigned-byte 8) :initial-element 1) kept)))
