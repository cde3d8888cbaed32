#include <iostream>
#include <thread>
#include <vector>

// Four threads, each sums its quarter.
int main()
{
    long long part[4] = {};
    std::vector<std::thread> t;
    for (int k = 0; k < 4; k++)
        t.emplace_back([&part, k] {
            long long s = 0;
            for (long long i = k; i < 400000; i += 4)
                s += i;
            part[k] = s;
        });
    for (auto &th : t)
        th.join();
    std::cout << part[0] + part[1] + part[2] + part[3] << "\n";
}
