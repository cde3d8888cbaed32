#lang racket/base
(displayln "hello, world")
