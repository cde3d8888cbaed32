#include <iostream>
#include <memory>

// 1 GiB in 1 MiB blocks, one alive at a time (freed as the next comes).
int main()
{
    std::unique_ptr<char[]> alive;
    for (int i = 0; i < 1024; i++) {
        alive = std::make_unique<char[]>(1 << 20);
        alive[i] = (char)i;
    }
    std::cout << "done " << (1 << 20) << "\n";
}
