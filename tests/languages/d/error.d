void main()
{
    throw new Exception("uncaught");
}
