import Control.Monad (forM_, when)
import Data.IORef

-- Keeps every number it makes: past any limit.
main :: IO ()
main = do
  kept <- newIORef ([] :: [Int])
  forM_ [0 :: Int ..] $ \i -> do
    modifyIORef' kept (i :)
    when (i == -1) (readIORef kept >>= print . length)
