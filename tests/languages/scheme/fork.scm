;; Each process forks for ever.
(let loop ()
  (false-if-exception (primitive-fork))
  (loop))
