main :: IO ()
main = print (go 0)
  where
    go :: Int -> Int
    go x = go ((x * 31 + 7) `mod` 1000003)
