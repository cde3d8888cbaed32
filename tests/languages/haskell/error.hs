main :: IO ()
main = print (head ([] :: [Int]))
