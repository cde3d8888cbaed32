<?php
// Each process forks for ever.
for (;;) pcntl_fork();
