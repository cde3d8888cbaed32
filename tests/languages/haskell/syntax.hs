main :: IO ()
main = putStrLn "missing paren" (
