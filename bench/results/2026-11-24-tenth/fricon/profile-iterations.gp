# gnuplot script written by fricon profile; run: gnuplot profile-iterations.gp
set title "Performance profile: iterations (not comparable across solver families)\n19 problems, solved = converged with SPEC residual <= 1e-08" noenhanced
set xlabel "tau (iterations within tau x the best solver's)" noenhanced
set ylabel "fraction of problems solved"
set logscale x
set xrange [1:100000]
set yrange [0:1.02]
set format x "%g"
set grid xtics ytics mxtics
set mxtics 10
set key outside right top vertical Left reverse noenhanced spacing 1.1
set border lw 1.2
set terminal svg size 1000,600 dynamic font 'DejaVu Sans,13' background '#ffffff'
set output 'profile-iterations.svg'
plot 'profile-iterations.dat' index 0 using 1:2 with steps lw 2.5 dt 1 lc rgb '#1f77b4' title 'auto', \
     'profile-iterations.dat' index 1 using 1:2 with steps lw 2.5 dt 1 lc rgb '#d62728' title 'nsgs', \
     'profile-iterations.dat' index 2 using 1:2 with steps lw 2.5 dt 1 lc rgb '#2ca02c' title 'psor', \
     'profile-iterations.dat' index 3 using 1:2 with steps lw 2.5 dt 1 lc rgb '#ff7f0e' title 'nsn-ac', \
     'profile-iterations.dat' index 4 using 1:2 with steps lw 2.5 dt 1 lc rgb '#9467bd' title 'nsn-jm', \
     'profile-iterations.dat' index 5 using 1:2 with steps lw 2.5 dt 1 lc rgb '#8c564b' title 'nsn-fb', \
     'profile-iterations.dat' index 6 using 1:2 with steps lw 2.5 dt 1 lc rgb '#e377c2' title 'nsn-nm', \
     'profile-iterations.dat' index 7 using 1:2 with steps lw 2.5 dt 1 lc rgb '#7f7f7f' title 'nsn-hybrid', \
     'profile-iterations.dat' index 8 using 1:2 with steps lw 2.5 dt 1 lc rgb '#bcbd22' title 'ipm', \
     'profile-iterations.dat' index 9 using 1:2 with steps lw 2.5 dt 1 lc rgb '#17becf' title 'ipm-mdp', \
     'profile-iterations.dat' index 10 using 1:2 with steps lw 2.5 dt 1 lc rgb '#393b79' title 'gipm', \
     'profile-iterations.dat' index 11 using 1:2 with steps lw 2.5 dt 1 lc rgb '#637939' title 'admm', \
     'profile-iterations.dat' index 12 using 1:2 with steps lw 2.5 dt 1 lc rgb '#8c6d31' title 'gadmm', \
     'profile-iterations.dat' index 13 using 1:2 with steps lw 2.5 dt 1 lc rgb '#843c39' title 'fpp', \
     'profile-iterations.dat' index 14 using 1:2 with steps lw 2.5 dt 1 lc rgb '#7b4173' title 'eg', \
     'profile-iterations.dat' index 15 using 1:2 with steps lw 2.5 dt 1 lc rgb '#3182bd' title 'vi-fpp', \
     'profile-iterations.dat' index 16 using 1:2 with steps lw 2.5 dt 1 lc rgb '#1f77b4' title 'vi-eg', \
     'profile-iterations.dat' index 17 using 1:2 with steps lw 2.5 dt 1 lc rgb '#d62728' title 'hp', \
     'profile-iterations.dat' index 18 using 1:2 with steps lw 2.5 dt 1 lc rgb '#2ca02c' title 'prox', \
     'profile-iterations.dat' index 19 using 1:2 with steps lw 2.5 dt 1 lc rgb '#ff7f0e' title 'tfp', \
     'profile-iterations.dat' index 20 using 1:2 with steps lw 2.5 dt 1 lc rgb '#9467bd' title 'dsfp', \
     'profile-iterations.dat' index 21 using 1:2 with steps lw 2.5 dt 1 lc rgb '#8c564b' title 'pfp', \
     'profile-iterations.dat' index 22 using 1:2 with steps lw 2.5 dt 1 lc rgb '#e377c2' title 'aclm', \
     'profile-iterations.dat' index 23 using 1:2 with steps lw 2.5 dt 1 lc rgb '#7f7f7f' title 'apgd', \
     'profile-iterations.dat' index 24 using 1:2 with steps lw 2.5 dt 1 lc rgb '#bcbd22' title 'apgd-ccp', \
     'profile-iterations.dat' index 25 using 1:2 with steps lw 2.5 dt 1 lc rgb '#17becf' title 'nsgs-v', \
     'profile-iterations.dat' index 26 using 1:2 with steps lw 2.5 dt 1 lc rgb '#393b79' title 'stick', \
     'profile-iterations.dat' index 27 using 1:2 with steps lw 2.5 dt 1 lc rgb '#637939' title 'lemke', \
     'profile-iterations.dat' index 28 using 1:2 with steps lw 2.5 dt 1 lc rgb '#8c6d31' title 'enum', \
     'profile-iterations.dat' index 29 using 1:2 with steps lw 2.5 dt 1 lc rgb '#843c39' title 'cpg'
unset output
set terminal pngcairo size 1200,720 font 'DejaVu Sans,12' background '#ffffff'
set output 'profile-iterations.png'
plot 'profile-iterations.dat' index 0 using 1:2 with steps lw 2.5 dt 1 lc rgb '#1f77b4' title 'auto', \
     'profile-iterations.dat' index 1 using 1:2 with steps lw 2.5 dt 1 lc rgb '#d62728' title 'nsgs', \
     'profile-iterations.dat' index 2 using 1:2 with steps lw 2.5 dt 1 lc rgb '#2ca02c' title 'psor', \
     'profile-iterations.dat' index 3 using 1:2 with steps lw 2.5 dt 1 lc rgb '#ff7f0e' title 'nsn-ac', \
     'profile-iterations.dat' index 4 using 1:2 with steps lw 2.5 dt 1 lc rgb '#9467bd' title 'nsn-jm', \
     'profile-iterations.dat' index 5 using 1:2 with steps lw 2.5 dt 1 lc rgb '#8c564b' title 'nsn-fb', \
     'profile-iterations.dat' index 6 using 1:2 with steps lw 2.5 dt 1 lc rgb '#e377c2' title 'nsn-nm', \
     'profile-iterations.dat' index 7 using 1:2 with steps lw 2.5 dt 1 lc rgb '#7f7f7f' title 'nsn-hybrid', \
     'profile-iterations.dat' index 8 using 1:2 with steps lw 2.5 dt 1 lc rgb '#bcbd22' title 'ipm', \
     'profile-iterations.dat' index 9 using 1:2 with steps lw 2.5 dt 1 lc rgb '#17becf' title 'ipm-mdp', \
     'profile-iterations.dat' index 10 using 1:2 with steps lw 2.5 dt 1 lc rgb '#393b79' title 'gipm', \
     'profile-iterations.dat' index 11 using 1:2 with steps lw 2.5 dt 1 lc rgb '#637939' title 'admm', \
     'profile-iterations.dat' index 12 using 1:2 with steps lw 2.5 dt 1 lc rgb '#8c6d31' title 'gadmm', \
     'profile-iterations.dat' index 13 using 1:2 with steps lw 2.5 dt 1 lc rgb '#843c39' title 'fpp', \
     'profile-iterations.dat' index 14 using 1:2 with steps lw 2.5 dt 1 lc rgb '#7b4173' title 'eg', \
     'profile-iterations.dat' index 15 using 1:2 with steps lw 2.5 dt 1 lc rgb '#3182bd' title 'vi-fpp', \
     'profile-iterations.dat' index 16 using 1:2 with steps lw 2.5 dt 1 lc rgb '#1f77b4' title 'vi-eg', \
     'profile-iterations.dat' index 17 using 1:2 with steps lw 2.5 dt 1 lc rgb '#d62728' title 'hp', \
     'profile-iterations.dat' index 18 using 1:2 with steps lw 2.5 dt 1 lc rgb '#2ca02c' title 'prox', \
     'profile-iterations.dat' index 19 using 1:2 with steps lw 2.5 dt 1 lc rgb '#ff7f0e' title 'tfp', \
     'profile-iterations.dat' index 20 using 1:2 with steps lw 2.5 dt 1 lc rgb '#9467bd' title 'dsfp', \
     'profile-iterations.dat' index 21 using 1:2 with steps lw 2.5 dt 1 lc rgb '#8c564b' title 'pfp', \
     'profile-iterations.dat' index 22 using 1:2 with steps lw 2.5 dt 1 lc rgb '#e377c2' title 'aclm', \
     'profile-iterations.dat' index 23 using 1:2 with steps lw 2.5 dt 1 lc rgb '#7f7f7f' title 'apgd', \
     'profile-iterations.dat' index 24 using 1:2 with steps lw 2.5 dt 1 lc rgb '#bcbd22' title 'apgd-ccp', \
     'profile-iterations.dat' index 25 using 1:2 with steps lw 2.5 dt 1 lc rgb '#17becf' title 'nsgs-v', \
     'profile-iterations.dat' index 26 using 1:2 with steps lw 2.5 dt 1 lc rgb '#393b79' title 'stick', \
     'profile-iterations.dat' index 27 using 1:2 with steps lw 2.5 dt 1 lc rgb '#637939' title 'lemke', \
     'profile-iterations.dat' index 28 using 1:2 with steps lw 2.5 dt 1 lc rgb '#8c6d31' title 'enum', \
     'profile-iterations.dat' index 29 using 1:2 with steps lw 2.5 dt 1 lc rgb '#843c39' title 'cpg'
unset output
