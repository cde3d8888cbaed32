// An interactor written with testlib (registerInteraction), for the
// protocol of tests/progs/guess_solver: each round the program asks "? X"
// and hears "<", ">" or "=". The input holds the number of rounds and a
// secret per round. A round takes at most 25 questions; the first round
// that takes more ends the interaction with the share of rounds solved
// (quitp). What the program sends is read with testlib's own readers, so
// anything malformed is its _pe and a program that stops talking its
// unexpected eof (exit 8 when built with -DENABLE_UNEXPECTED_EOF).
#include "testlib.h"

int main(int argc, char *argv[])
{
    registerInteraction(argc, argv);
    int rounds = inf.readInt(1, 100, "rounds");
    for (int r = 1; r <= rounds; r++) {
        long long secret = inf.readLong(0LL, 1000000LL, "secret");
        for (int q = 1;; q++) {
            if (q > 25)
                quitp(double(r - 1) / rounds, "round %d: more than 25 questions", r);
            ouf.readToken("[?]", "question mark");
            long long x = ouf.readLong(-2000000000LL, 2000000000LL, "guess");
            tout << x << std::endl;
            if (x == secret) {
                std::cout << "=" << std::endl;
                break;
            }
            std::cout << (x > secret ? "<" : ">") << std::endl;
        }
    }
    quitf(_ok, "%d rounds solved", rounds);
}
