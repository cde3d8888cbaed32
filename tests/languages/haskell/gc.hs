import Control.Monad (foldM)
import qualified Data.ByteString as B

-- 1 GiB in 1 MiB blocks, one alive at a time.
main :: IO ()
main = do
  alive <- foldM (\_ i -> let b = B.replicate (1024 * 1024) (fromIntegral i) in B.length b `seq` return b)
                 B.empty [0 :: Int .. 1023]
  putStrLn ("done " ++ show (B.length alive))
