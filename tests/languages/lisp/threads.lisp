;; Four threads, each sums its quarter.
(let ((threads (loop for id below 4
                     collect (let ((id id))
                               (sb-thread:make-thread
                                (lambda () (loop for i from id below 400000 by 4 sum i)))))))
  (format t "~d~%" (reduce #'+ (mapcar #'sb-thread:join-thread threads))))
