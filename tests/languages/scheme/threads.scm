;; Four threads, each sums its quarter.
(use-modules (ice-9 threads))
(define (part id)
  (let loop ((i id) (s 0))
    (if (< i 400000) (loop (+ i 4) (+ s i)) s)))
(define threads (map (lambda (id) (call-with-new-thread (lambda () (part id)))) '(0 1 2 3)))
(display (apply + (map join-thread threads)))
(newline)
