# The schedulers the VM started (a thread each).
s = {:erlang.system_info(:schedulers), :erlang.system_info(:dirty_cpu_schedulers), :erlang.system_info(:dirty_io_schedulers)}
IO.puts(if s == {1, 1, 1}, do: "bounded", else: "unbounded: #{inspect(s)}")
