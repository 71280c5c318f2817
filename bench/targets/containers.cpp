// A C++ program of the kind Stride's authors did not shape: standard containers on the heap
// (a sorted vector, a std::map and an std::unordered_map of strings), iostream and a regex,
// built as Debian builds by default (g++ -O2 -g, PIE). Its accesses go to a new heap block
// at almost every step (map nodes, strings) and its debug information is large (libstdc++'s
// templates): the case that whole-program tracing and data-structure naming find hardest.
// Usage: containers [N] (default 200000)
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

int main(int argc, char **argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 200000;
  std::vector<int> keys(n);
  for (int i = 0; i < n; i++) keys[i] = static_cast<int>((i * 2654435761u) % 1000003u);
  std::sort(keys.begin(), keys.end());
  std::map<int, int> ordered;
  std::unordered_map<int, std::string> names;
  for (int i = 0; i < n / 4; i++) {
    ordered[keys[i]] += i;
    names[keys[i] % 5000] = std::to_string(i);
  }
  long sum = 0;
  for (const auto &kv : ordered) sum += kv.second;
  for (const auto &kv : names) sum += static_cast<long>(kv.second.size());
  std::ostringstream text;
  text << sum;
  std::cout << std::regex_match(text.str(), std::regex("[0-9]+")) << ' ' << sum << '\n';
  return 0;
}
