/* 16 GiB of initialised data: the assembler and the linker would write it all. */
char big[1ull << 34] = { 1 };
int main(void) { return big[0]; }
