<?php
function f() { throw new Exception("uncaught"); }
f();
