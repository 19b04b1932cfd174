# gnuplot script written by fricon profile; run: gnuplot profile-time.gp
set title "Performance profile: solve time\n19 problems, solved = converged with SPEC residual <= 1e-08" noenhanced
set xlabel "tau (time within tau x the best solver's)" noenhanced
set ylabel "fraction of problems solved"
set logscale x
set xrange [1:1000]
set yrange [0:1.02]
set format x "%g"
set grid xtics ytics mxtics
set mxtics 10
set key outside right top vertical Left reverse noenhanced spacing 1.1
set border lw 1.2
set terminal svg size 1000,600 dynamic font 'DejaVu Sans,13' background '#ffffff'
set output 'profile-time.svg'
plot 'profile-time.dat' index 0 using 1:2 with steps lw 2.5 dt 1 lc rgb '#1f77b4' title 'auto', \
     'profile-time.dat' index 1 using 1:2 with steps lw 2.5 dt 1 lc rgb '#d62728' title 'nsgs', \
     'profile-time.dat' index 2 using 1:2 with steps lw 2.5 dt 1 lc rgb '#2ca02c' title 'nsn-ac', \
     'profile-time.dat' index 3 using 1:2 with steps lw 2.5 dt 1 lc rgb '#ff7f0e' title 'nsn-hybrid', \
     'profile-time.dat' index 4 using 1:2 with steps lw 2.5 dt 1 lc rgb '#9467bd' title 'ipm', \
     'profile-time.dat' index 5 using 1:2 with steps lw 2.5 dt 1 lc rgb '#8c564b' title 'ipm-mdp', \
     'profile-time.dat' index 6 using 1:2 with steps lw 2.5 dt 1 lc rgb '#e377c2' title 'admm', \
     'profile-time.dat' index 7 using 1:2 with steps lw 2.5 dt 1 lc rgb '#7f7f7f' title 'stick', \
     'profile-time.dat' index 8 using 1:2 with steps lw 2.5 dt 1 lc rgb '#bcbd22' title 'prox', \
     'profile-time.dat' index 9 using 1:2 with steps lw 2.5 dt 1 lc rgb '#17becf' title 'tfp', \
     'profile-time.dat' index 10 using 1:2 with steps lw 2.5 dt 1 lc rgb '#393b79' title 'lemke'
unset output
set terminal pngcairo size 1200,720 font 'DejaVu Sans,12' background '#ffffff'
set output 'profile-time.png'
plot 'profile-time.dat' index 0 using 1:2 with steps lw 2.5 dt 1 lc rgb '#1f77b4' title 'auto', \
     'profile-time.dat' index 1 using 1:2 with steps lw 2.5 dt 1 lc rgb '#d62728' title 'nsgs', \
     'profile-time.dat' index 2 using 1:2 with steps lw 2.5 dt 1 lc rgb '#2ca02c' title 'nsn-ac', \
     'profile-time.dat' index 3 using 1:2 with steps lw 2.5 dt 1 lc rgb '#ff7f0e' title 'nsn-hybrid', \
     'profile-time.dat' index 4 using 1:2 with steps lw 2.5 dt 1 lc rgb '#9467bd' title 'ipm', \
     'profile-time.dat' index 5 using 1:2 with steps lw 2.5 dt 1 lc rgb '#8c564b' title 'ipm-mdp', \
     'profile-time.dat' index 6 using 1:2 with steps lw 2.5 dt 1 lc rgb '#e377c2' title 'admm', \
     'profile-time.dat' index 7 using 1:2 with steps lw 2.5 dt 1 lc rgb '#7f7f7f' title 'stick', \
     'profile-time.dat' index 8 using 1:2 with steps lw 2.5 dt 1 lc rgb '#bcbd22' title 'prox', \
     'profile-time.dat' index 9 using 1:2 with steps lw 2.5 dt 1 lc rgb '#17becf' title 'tfp', \
     'profile-time.dat' index 10 using 1:2 with steps lw 2.5 dt 1 lc rgb '#393b79' title 'lemke'
unset output
