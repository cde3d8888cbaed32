;; The threads the runtime started once the collector has run: at most 8
;; whatever the CPU count (libgc's markers, one a CPU unless the preset
;; says GC_MARKERS=1, would be 64 on a 64-CPU host).
(use-modules (ice-9 rdelim) (ice-9 regex))
(let loop ((i 0))
  (when (< i 200)
    (make-vector (* 128 1024) 0)
    (loop (+ i 1))))
(gc)
(define n
  (call-with-input-file "/proc/self/status"
    (lambda (p)
      (let loop ((l (read-line p)))
        (cond ((eof-object? l) 0)
              ((string-match "^Threads:[ \t]*([0-9]+)" l)
               => (lambda (m) (string->number (match:substring m 1))))
              (else (loop (read-line p))))))))
(display (if (<= n 8) "bounded" (string-append "unbounded: " (number->string n) " threads")))
(newline)
