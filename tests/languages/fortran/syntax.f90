program syntax
  print '(a)', 'missing paren'
  x = (1 + 2
end program syntax
