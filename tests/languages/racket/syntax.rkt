#lang racket/base
(displayln "missing paren"
