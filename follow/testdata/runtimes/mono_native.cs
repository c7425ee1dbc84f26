using System;
using System.Runtime.InteropServices;
class Game {
    [DllImport("libc")] static extern int strlen(IntPtr s);
    static void SpawnEnemy() { Console.Error.WriteLine("spawning"); strlen(IntPtr.Zero); }
    static void Main() { Console.WriteLine("starting"); SpawnEnemy(); }
}
