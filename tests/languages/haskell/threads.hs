import Control.Concurrent
import Control.Monad

-- Four threads, each sums its quarter.
main :: IO ()
main = do
  vars <- forM [0 .. 3] $ \k -> do
    v <- newEmptyMVar
    _ <- forkIO $ putMVar v $! sum [k, k + 4 .. 399999 :: Int]
    return v
  parts <- mapM takeMVar vars
  print (sum parts)
