#lang racket/base
;; Keeps every 1 MiB block: past any limit.
(let loop ([kept '()])
  (loop (cons (make-bytes (* 1024 1024) 1) kept)))
