#include <vector>

// Keeps every 1 MiB block: past any limit.
int main()
{
    std::vector<std::vector<char>> kept;
    for (;;)
        kept.emplace_back(1 << 20, 1);
}
