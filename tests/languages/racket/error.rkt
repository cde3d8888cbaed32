#lang racket/base
(error "uncaught")
